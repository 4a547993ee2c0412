"""irconv-viz: renderers for ``irconv show`` (hook ``render_graph``)."""
