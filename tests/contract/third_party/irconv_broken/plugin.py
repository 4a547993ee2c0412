"""A plugin whose hook fails at start-up, as one with a missing dependency would."""

from irconv import hookimpl


@hookimpl
def middle_transform():  # type: ignore[no-untyped-def]
    import irconv_dependency_that_is_not_installed  # noqa: F401

    return []
