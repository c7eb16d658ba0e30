"""Test harness for the downloadfs integration suite.

One module per concern: finding the binary (`binary`), mounting the daemon
(`mount`), the HTTP servers it downloads from (`nginx`, `faultserver`),
deterministic file content (`files`), and polling with deadlines (`waiting`).
"""
