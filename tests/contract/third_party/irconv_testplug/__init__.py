"""A third-party plugin as someone would publish it: one op, its extractor, an option, a fusion."""
