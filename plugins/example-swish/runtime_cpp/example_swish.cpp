// ExampleSwish (custom opset "irconv_example") as an OpenVINO C++ extension library.
//
// The runtime half of irconv-example-swish for deployments without Python: build it
// against the OpenVINO you run (see CMakeLists.txt), then
//     core.add_extension("libirconv_example_swish.so")
// before read_model. y = x * sigmoid(beta * x), f32, evaluated on the host.

#include <cmath>
#include <memory>
#include <vector>

#include <openvino/core/extension.hpp>
#include <openvino/core/op_extension.hpp>
#include <openvino/op/op.hpp>

namespace irconv_example {

class ExampleSwish : public ov::op::Op {
public:
    // (type, opset) must equal the IR layer's type="ExampleSwish" version="irconv_example".
    OPENVINO_OP("ExampleSwish", "irconv_example");

    ExampleSwish() = default;

    ExampleSwish(const ov::Output<ov::Node>& x, float beta) : Op({x}), m_beta(beta) {
        constructor_validate_and_infer_types();
    }

    void validate_and_infer_types() override {
        set_output_type(0, get_input_element_type(0), get_input_partial_shape(0));
    }

    std::shared_ptr<ov::Node> clone_with_new_inputs(const ov::OutputVector& inputs) const override {
        OPENVINO_ASSERT(inputs.size() == 1, "ExampleSwish takes one input");
        return std::make_shared<ExampleSwish>(inputs[0], m_beta);
    }

    // The names here are the IR's <data> attribute names (irconv writes every one).
    bool visit_attributes(ov::AttributeVisitor& visitor) override {
        visitor.on_attribute("beta", m_beta);
        return true;
    }

    bool has_evaluate() const override {
        return get_input_element_type(0) == ov::element::f32;
    }

    bool evaluate(ov::TensorVector& outputs, const ov::TensorVector& inputs) const override {
        const ov::Tensor& in = inputs[0];
        ov::Tensor& out = outputs[0];
        out.set_shape(in.get_shape());
        const auto* x = static_cast<const float*>(in.data());
        auto* y = static_cast<float*>(out.data());
        for (size_t i = 0; i < in.get_size(); ++i) {
            y[i] = x[i] / (1.0f + std::exp(-m_beta * x[i]));
        }
        return true;
    }

private:
    float m_beta = 1.0f;
};

}  // namespace irconv_example

OPENVINO_CREATE_EXTENSIONS(std::vector<ov::Extension::Ptr>({
    std::make_shared<ov::OpExtension<irconv_example::ExampleSwish>>(),
}));
