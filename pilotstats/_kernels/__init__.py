"""Private numba kernels, one module per area, compiled lazily by :mod:`._jit`."""
