"""irconv-mo: the legacy Model Optimizer's command line, ``irconv mo`` and ``mo`` (hook ``cli_command``)."""
