"""The deployment harnesses: the scale-out test (`make scale-test`), the fault-injection matrix
(`make fault-test`) and the bounded soak (`make soak`) over the arrangement they share, kept
beside the tests that import them (tests/serving/test_fault_injection.py, test_scale_out.py,
test_soak.py)."""
