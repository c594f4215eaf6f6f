"""run.py DIR — ctest's python_spec: pytest over DIR, quietly, without a cache in the source tree; exits 77
(skipped) when pytest is not installed (Debian: python3-pytest)."""
import sys

try:
    import pytest
except ImportError as missing:
    print("python_spec: skipped: %s (python3-pytest)" % missing)
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]]))
