"""Lazy JIT dispatcher for the private kernels.

Each kernel is written once as a plain Python function and decorated with :func:`kernel`.
Nothing is imported from numba and nothing is compiled until the kernel is first called;
then it is compiled with ``numba.njit(cache=True, nogil=_config.NOGIL)`` (never fastmath)
and memoised. ``nogil`` lets the thread pool of :func:`pilotstats.analysis.detect_many` run
kernels of different series on several cores at once.

Kernels may call other kernels: at compile time every global of the kernel that is itself a
:class:`LazyKernel` is replaced by its *nested* dispatcher, so nested calls stay in machine
code. A kernel has up to two dispatchers, each compiled on first need: the one Python calls
(with numba's CPython wrapper) and the nested one other kernels call, compiled without that
wrapper, which saves a good part of the first-call compile time of kernels built from
several helpers. Neither has numba's C-callable (``cfunc``) wrapper, which nothing here
uses. The nested dispatcher compiles a copy of the function under the qualified name
``<name>.nested``, so the two never share a numba cache entry.

**Interpreted first calls.** Compiling costs 0.1–2.5 s CPU per kernel (plus about 0.9 s
for importing and setting up numba once per process), while the pure-Python twin of a
kernel answers a call on a few hundred samples in milliseconds. A kernel declared with an
``interpret`` cost class therefore runs its first calls from Python as the twin while the
call is small (every array argument, in tuple bundles too, has at most
``_config.INTERPRETED_MAX_SIZE[interpret]`` elements), the kernel has spent less than
``_config.INTERPRETED_KERNEL_BUDGET`` CPU seconds interpreted, and the process less than
``_config.INTERPRETED_TIER_BUDGET`` in all; a larger call, or any call once a budget is
spent, compiles it (ski rental: the rent paid before the compile price stays bounded per
kernel and per process).
Kernels the twin calls run as their twins too. The twins compute the same floating-point
operations in the same order, so results are identical bit for bit in either tier
(``tests/test_jit_interpreted.py``). One switch, ``_config.INTERPRETED_TIER = False``
(environment ``PILOTSTATS_INTERPRETED_TIER=0``), compiles on the first call, as ``python -m
pilotstats compile`` does; one function, :func:`_tier_for_call`, holds the whole policy
(this paragraph and the next).

**Vectorised twins and background compilation.** A kernel may also have a *vectorised*
twin (``kernel(vectorised=f)``): a numpy function with bit-identical results and a cost
near the compiled kernel's (``_kernels/detect_numpy.py``; the EDM programme of
``_kernels/edm_numpy.py`` is one for series up to ``_config.EDM_VECTORISED_MAX_POINTS``,
dispatched by :meth:`LazyKernel.rents`). While the kernel is not compiled, its calls run
the vectorised twin at any size, charged to the same budgets; once a budget is spent the
kernel compiles in a daemon thread (for the argument types of the call that found the
budget spent) and calls keep running the twin until the compiled code is ready, so no
call waits for the compiler, unless the rent paid meanwhile reaches the budget again (twice
the kernel's or the process's budget): then calls wait for it, so that a batch whose
threads keep calling (and compete with the compiler for the GIL) stops paying rent (300
series of 500 points in ``detect_many(workers=2)`` in a fresh process: 3.4 s CPU, against
12.2 s without the wait, 5.2 s compiling at once and 8.4 s with the pure-Python twins
alone). A fresh process that analyses a few series thus neither imports numba nor compiles
anything (``detect_changes`` and ``edm`` on 1,000 points in about 0.23 s CPU and
42 MB for the whole process, ``benchmarks/RESULTS_detect.md``), and a later call at another
size does not stop to compile (``edm`` on more than ``EDM_VECTORISED_MAX_POINTS`` = 5,000
points excepted); a long batch still ends up on compiled code.

The pure-Python path is selected by numba's own ``NUMBA_DISABLE_JIT=1`` or by
``PILOTSTATS_DISABLE_JIT=1`` (which does not even import numba). If numba is missing or fails
to import, the dispatcher falls back to the pure-Python path and emits
:class:`~pilotstats.exceptions.PerformanceWarning` once.
"""

from __future__ import annotations

import math
import threading
import time
import types
import warnings
from collections.abc import Callable
from typing import Any, Generic, Literal, ParamSpec, Protocol, TypeVar, cast, overload

import numpy as np

from pilotstats import _config
from pilotstats.exceptions import PerformanceWarning

__all__ = ["LazyKernel", "kernel", "numba_available"]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

#: Cost classes of :func:`kernel`'s ``interpret`` (keys of ``_config.INTERPRETED_MAX_SIZE``).
CostClass = Literal["linear", "quadratic", "quadratic_heavy"]

_numba_module: Any = None
_numba_failed = False
_warned = False


def _import_numba() -> Any:
    """Import numba once; return None (after one warning) when it cannot be used."""
    global _numba_module, _numba_failed, _warned
    if _numba_module is not None or _numba_failed:
        return _numba_module
    try:
        import numba
    except Exception as exc:  # ImportError, or a broken binary install
        _numba_failed = True
        if not _warned:
            _warned = True
            warnings.warn(
                f"numba could not be imported ({exc}); pilotstats kernels run as plain "
                "Python and will be much slower",
                PerformanceWarning,
                stacklevel=3,
            )
        return None
    _numba_module = numba
    return numba


class _Dispatcher(Protocol):
    """The part of a numba dispatcher used here beyond calling it."""

    def compile(self, signature: tuple[Any, ...]) -> Any: ...


class _InterpreterState(threading.local):
    """Per thread: True while a kernel runs as its pure-Python twin (interpreted tier)."""

    active: bool = False


_interpreting = _InterpreterState()

#: CPU seconds this process has spent in interpreted kernels (all threads, all kernels).
_interpreted_total = 0.0


def numba_available() -> bool:
    """Return True when kernels will be compiled (numba importable and JIT not disabled)."""
    return not _config.jit_disabled() and _import_numba() is not None


class LazyKernel(Generic[P, R]):
    """A kernel compiled on first call.

    Attributes
    ----------
    py_func : callable
        The plain Python function (the pure-Python twin used by tests).
    interpret : {"linear", "quadratic", "quadratic_heavy"} or None
        Cost class of the interpreted first calls (see the module notes); None: the kernel
        compiles on its first call.
    interpreted_seconds : float
        CPU seconds its interpreted calls took in this process so far.
    """

    def __init__(
        self,
        func: Callable[P, R],
        *,
        parallel: bool = False,
        error_model: str = "python",
        python_entry: bool = False,
        interpret: CostClass | None = None,
        vectorised: Callable[P, R] | None = None,
    ) -> None:
        if interpret is not None and interpret not in _config.INTERPRETED_MAX_SIZE:
            raise ValueError(f"interpret must be one of {list(_config.INTERPRETED_MAX_SIZE)}"
                             f" or None, not {interpret!r}")
        self.py_func = func
        self.interpret = interpret
        self.vectorised = vectorised
        self._background: threading.Thread | None = None
        # True once a call through _compiled cannot stop to compile (the kernel compiled
        # for its arguments): a python_entry kernel's dispatcher is published by the
        # build of a kernel that calls it before it has machine code for Python's calls
        self._ready = False
        self.interpreted_seconds = 0.0
        self.parallel = parallel
        self.error_model = error_model
        self.python_entry = python_entry
        self._compiled: Callable[P, R] | None = None
        self._nested: Callable[P, R] | None = None
        self._twin: Callable[P, R] | None = None
        self._lock = threading.Lock()  # threads of detect_many compile a kernel only once
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__wrapped__ = func

    def compiled(self) -> Callable[P, R]:
        """Return the callable used at run time from Python (compiled, or the plain function)."""
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = self._build(from_python=True)
        return self._compiled

    def nested(self) -> Callable[P, R]:
        """Return the dispatcher that other kernels call (no CPython wrapper).

        For a kernel declared ``python_entry`` this is the Python-callable dispatcher, so
        a kernel that the library calls both from Python and from kernels compiles once.
        """
        if self.python_entry:
            return self.compiled()
        if self._nested is None:
            with self._lock:
                if self._nested is None:
                    self._nested = self._build(from_python=False)
        return self._nested

    def twin(self) -> Callable[P, R]:
        """Return the interpreted tier's function: ``py_func`` with the kernels it calls
        bound directly to their own twins (no dispatch per nested call; same code, so the
        same results as ``py_func``)."""
        if self._twin is None:
            replacements = {
                name: value.twin()
                for name in self.py_func.__code__.co_names
                if isinstance(value := self.py_func.__globals__.get(name), LazyKernel)
            }
            self._twin = self._rebound(replacements, "") if replacements else self.py_func
        return self._twin

    def _rebound(self, replacements: dict[str, Any], suffix: str) -> Callable[P, R]:
        """``py_func`` with some globals replaced, under the qualified name + ``suffix``."""
        func = self.py_func
        namespace = dict(func.__globals__)
        namespace.update(replacements)
        rebound = types.FunctionType(
            func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__
        )
        rebound.__qualname__ = func.__qualname__ + suffix
        rebound.__module__ = func.__module__
        return rebound

    def _build(self, *, from_python: bool) -> Callable[P, R]:
        if _config.jit_disabled():
            return self.py_func
        numba = _import_numba()
        if numba is None:
            return self.py_func
        replacements: dict[str, Any] = {}
        for name in self.py_func.__code__.co_names:
            value = self.py_func.__globals__.get(name)
            if isinstance(value, LazyKernel):
                replacements[name] = value.nested()
            elif value is prange:
                replacements[name] = numba.prange
        func = self.py_func
        if replacements or not from_python:
            # a separate qualified name gives the nested variant its own cache files
            func = self._rebound(replacements, "" if from_python else ".nested")
        parallel = bool(self.parallel and _config.PARALLEL)
        compiled: Callable[P, R] = numba.njit(
            cache=True, parallel=parallel, error_model=self.error_model,
            nogil=bool(_config.NOGIL), no_cfunc_wrapper=True,
            no_cpython_wrapper=not from_python,
        )(func)
        return compiled

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        compiled = self._compiled
        if compiled is not None and (self._ready or self.vectorised is None):
            return compiled(*args, **kwargs)
        if _interpreting.active:  # called by an interpreted kernel: stay in Python
            return self.py_func(*args, **kwargs)
        twin: TwinKind | None = ("vectorised" if self.vectorised is not None
                                 else None if self.interpret is None else "twin")
        tier = _tier_for_call(self, twin, _largest_array(args), lambda: args)
        if tier == "vectorised" and self.vectorised is not None:
            with np.errstate(all="ignore"):  # IEEE results without warnings, as compiled
                return self.rented(self.vectorised, *args, **kwargs)
        if tier == "twin":
            return self.rented(self.twin(), *args, **kwargs)
        result = self.compiled()(*args, **kwargs)
        self._ready = True
        return result

    def join_compiler(self) -> None:
        """Wait for this kernel's background compilation, if one runs (and is not this
        thread)."""
        thread = self._background
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def compile_in_background(
        self, *example: Any,
        companions: tuple[tuple[LazyKernel[Any, Any], tuple[Any, ...]], ...] = (),
    ) -> None:
        """Compile this kernel for the argument types of ``example`` in a daemon thread
        (once); until it is done, calls keep running the vectorised twin (they wait for the
        compiler only as :func:`_tier_for_call` says; module notes). ``companions``
        (kernel, example arguments) compile first in the same thread: kernels that the
        compiled path calls from Python next to this one, which would otherwise compile in
        the foreground on its first call. Does nothing without numba."""
        if self._ready or self._background is not None:
            return
        with self._lock:
            if self._background is not None:
                return
            self._background = threading.Thread(
                target=self._compile_all, args=(example, companions), daemon=True,
                name=f"pilotstats-compile-{self.__name__}",
            )
        self._background.start()

    def _compile_all(
        self, example: tuple[Any, ...],
        companions: tuple[tuple[LazyKernel[Any, Any], tuple[Any, ...]], ...],
    ) -> None:
        for companion, arguments in companions:
            companion._compile_for(*arguments)
        self._compile_for(*example)

    def _compile_for(self, *example: Any) -> None:
        """Compile for the types of ``example``; mark the kernel ready only when done."""
        if self._ready:
            return
        numba = _import_numba()
        if numba is None:
            return
        try:
            dispatcher = self._compiled  # published by a caller's build (python_entry)
            if dispatcher is None:
                dispatcher = self._build(from_python=True)
            cast(_Dispatcher, dispatcher).compile(tuple(numba.typeof(v) for v in example))
        except Exception:  # the foreground compiles (and reports) if it ever must
            return
        with self._lock:
            if self._compiled is None:
                self._compiled = dispatcher
            self._ready = True

    def rents(
        self, size: int, limit: int, example: Callable[[], tuple[Any, ...]],
        companions: Callable[[], tuple[tuple[LazyKernel[Any, Any], tuple[Any, ...]], ...]]
        = tuple,
    ) -> bool:
        """Whether a call on arrays of ``size`` elements may run as a vectorised (numpy)
        twin of this kernel instead of compiling it: the kernel is not compiled yet, the
        interpreted tier is on and ``size <= limit``. Once the budgets are spent the kernel
        compiles in the background while the twin keeps answering (module notes);
        ``example()`` returns arguments of those types and ``companions()`` the kernels to
        compile with it (:meth:`compile_in_background`). The caller runs the twin through
        :meth:`rented`."""
        return _tier_for_call(self, "vectorised", size, example, companions, limit) != "compiled"

    def rented(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``func`` (a twin of this kernel, nested kernels as twins too) and charge its
        CPU time to this kernel's and the process's interpreted budgets."""
        global _interpreted_total
        start = time.thread_time()
        _interpreting.active = True
        try:
            return func(*args, **kwargs)
        finally:
            _interpreting.active = False
            spent = time.thread_time() - start
            self.interpreted_seconds += spent  # races between threads only lose rent
            _interpreted_total += spent

    def __repr__(self) -> str:
        state = "compiled" if self._compiled is not None else "not compiled"
        return f"<LazyKernel {self.__qualname__} ({state})>"


#: What a kernel can run instead of its machine code: a vectorised (numpy) twin or its
#: pure-Python twin (``py_func``, nested kernels as twins too).
TwinKind = Literal["vectorised", "twin"]

#: How one call runs (:func:`_tier_for_call`): machine code (compiled first if needed) or a twin.
Tier = Literal["compiled", "vectorised", "twin"]

_Companions = tuple[tuple[LazyKernel[Any, Any], tuple[Any, ...]], ...]


def _largest_array(args: tuple[Any, ...]) -> int:
    """Elements of the largest array among ``args`` and the bundles (tuples) among them."""
    largest = 0
    for arg in args:
        if isinstance(arg, np.ndarray):
            largest = max(largest, arg.size)
        elif isinstance(arg, tuple):
            largest = max(largest, _largest_array(arg))
    return largest


def _budget_spent(kernel: LazyKernel[Any, Any], times: float) -> bool:
    """The kernel's or the process's interpreted rent has reached ``times`` its budget."""
    return (kernel.interpreted_seconds >= times * _config.INTERPRETED_KERNEL_BUDGET
            or _interpreted_total >= times * _config.INTERPRETED_TIER_BUDGET)


def _tier_for_call(
    kernel: LazyKernel[Any, Any], twin: TwinKind | None, size: int,
    example: Callable[[], tuple[Any, ...]], companions: Callable[[], _Companions] = tuple,
    limit: float = math.inf,
) -> Tier:
    """The interpreted tier's policy: how one call of ``kernel`` (not yet ready) runs.

    ``twin`` is what the kernel can run instead of machine code (None: nothing), ``size``
    the elements of the call's largest array and ``limit`` the largest a vectorised twin
    takes (a pure-Python twin's limit is ``_config.INTERPRETED_MAX_SIZE`` of its cost
    class); ``example()`` returns arguments of the call's types and ``companions()``
    kernels to compile with it (:meth:`LazyKernel.compile_in_background`).

    - ``"compiled"`` when the switch ``_config.INTERPRETED_TIER`` is off, the JIT is
      disabled, there is no twin, the kernel is ready or the call is larger than the limit;
    - the twin while the kernel has spent less than ``INTERPRETED_KERNEL_BUDGET`` CPU
      seconds in twins and the process less than ``INTERPRETED_TIER_BUDGET`` (ski rental);
    - once a budget is spent, a pure-Python twin compiles in the foreground; a vectorised
      twin starts the compiler in a daemon thread and keeps answering until the machine
      code is ready, unless the rent reaches twice a budget: then the call waits for the
      compiler (a batch whose threads compete with it for the GIL stops paying rent).
    """
    if twin == "twin" and kernel.interpret is not None:
        limit = _config.INTERPRETED_MAX_SIZE[kernel.interpret]
    if (twin is None or kernel._ready or size > limit or not _config.INTERPRETED_TIER
            or _config.jit_disabled()):
        return "compiled"
    if not _budget_spent(kernel, 1.0):
        return twin
    if twin == "twin":
        return "compiled"
    kernel.compile_in_background(*example(), companions=companions())
    if not kernel._ready and _budget_spent(kernel, 2.0):
        kernel.join_compiler()
    return "compiled" if kernel._ready else twin


@overload
def kernel(func: Callable[P, R], /) -> LazyKernel[P, R]: ...


@overload
def kernel(
    func: None = None,
    /,
    *,
    parallel: bool = False,
    error_model: str = "python",
    python_entry: bool = False,
    interpret: CostClass | None = None,
    vectorised: Callable[..., Any] | None = None,
) -> Callable[[Callable[P, R]], LazyKernel[P, R]]: ...


def kernel(
    func: Callable[P, R] | None = None,
    /,
    *,
    parallel: bool = False,
    error_model: str = "python",
    python_entry: bool = False,
    interpret: CostClass | None = None,
    vectorised: Callable[..., Any] | None = None,
) -> LazyKernel[P, R] | Callable[[Callable[P, R]], LazyKernel[P, R]]:
    """Decorate a plain Python function as a lazily compiled numba kernel.

    Use as ``@kernel`` or ``@kernel(parallel=True)``; ``prange`` kernels must import
    ``prange`` through :func:`prange` below so the pure-Python path works without numba.
    ``error_model="numpy"`` (numba's option) drops the division-by-zero checks, which lets
    LLVM vectorise division loops; use it only in kernels that never divide by zero (the
    pure-Python twin would raise where the compiled kernel returns inf/nan).
    ``python_entry=True`` marks a kernel that the library calls from Python *and* from other
    kernels in the same analysis: both then use the one Python-callable dispatcher instead of
    compiling it twice (see :meth:`LazyKernel.nested`).
    ``interpret="linear"``, ``"quadratic"`` or ``"quadratic_heavy"`` (how the kernel's cost
    grows with the size of its arrays; limits in ``_config.INTERPRETED_MAX_SIZE``) lets small
    first calls run as the pure-Python twin instead of compiling (module notes). Use it only
    for kernels whose twin gives bit-identical results and whose cost the array sizes bound.
    ``vectorised=f`` names a numpy function with the kernel's signature and bit-identical
    results whose cost is near the compiled kernel's: while the kernel is not compiled,
    every call runs ``f`` (at any size); once the interpreted budgets are spent the kernel
    compiles in a background thread and later calls use it once it is ready (module
    notes).
    """
    def build(inner: Callable[P, R]) -> LazyKernel[P, R]:
        return LazyKernel(
            inner, parallel=parallel, error_model=error_model, python_entry=python_entry,
            interpret=interpret, vectorised=vectorised,
        )

    return build if func is None else build(func)


def prange(*args: int) -> range:
    """``range`` in Python; numba replaces it with its parallel ``prange`` when compiling."""
    return range(*args)
