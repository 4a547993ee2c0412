"""irconv: convert trained models into OpenVINO IR, through plugins.

Public API: ``convert_model``/``save_model``, the graph (``Graph``, ``Node``, ports),
``Op`` declarations and the plugin contract (``hookimpl`` and the record types).
"""

from importlib.metadata import PackageNotFoundError, version

from irconv.api import convert_model, save_model
from irconv.errors import ConversionError, IrconvError, PluginError, UnsupportedOpsError, UserError
from irconv.graph import Graph, InPort, Node, OutPort
from irconv.ops import Const, Op, Parameter, Result, attr
from irconv.pipeline import ConversionOptions
from irconv.plugins import Emitter, Extractor, Loader, Phase, PluginHost, Transform, hookimpl, opsets
from irconv.types import ElementType

try:
    __version__ = version("irconv-core")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "Const",
    "ConversionError",
    "ConversionOptions",
    "ElementType",
    "Emitter",
    "Extractor",
    "Graph",
    "InPort",
    "IrconvError",
    "Loader",
    "Node",
    "Op",
    "OutPort",
    "Parameter",
    "Phase",
    "PluginError",
    "PluginHost",
    "Result",
    "Transform",
    "UnsupportedOpsError",
    "UserError",
    "__version__",
    "attr",
    "convert_model",
    "hookimpl",
    "opsets",
    "save_model",
]
