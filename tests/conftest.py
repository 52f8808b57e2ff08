from hypothesis import settings

# Deterministic property tests: the same examples on every run.
settings.register_profile("tandem", derandomize=True, deadline=None, max_examples=40,
                          print_blob=True)
settings.load_profile("tandem")
