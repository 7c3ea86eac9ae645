"""Numba intrinsics for hot code, each with a plain-Python meaning: :func:`borrowed`,
:func:`prefetch` (hints plain Python ignores) and :func:`bit_count` (the CPU's popcount).

``borrowed(a)``: the same array, without its reference count, for a recursive kernel's hot loop.
Numba reference-counts every array a compiled function receives or copies: an atomic add on
entry and an atomic subtract on exit, in every call. A recursive search passes its arrays down
at every node, so these atomics are a visible share of a node's cost. A borrowed view is the
same memory with no owner record (numba's NRT calls on it return at once). Sound only while
the caller keeps the array alive for as long as the view is used: an entry point borrows its
own argument and hands the view down, never returns or stores it. Plain Python: ``a`` itself.

``prefetch(a, i)``: start loading ``a[i]`` into the cache and go on (LLVM's ``llvm.prefetch``).
A search's table is far larger than the cache: its probe is a memory read of ~100 ns that the
exact solver's node otherwise waits for (the load of the slot took over half the samples of
a profile). Issued when the node's key is known, the read overlaps the node's other work.
Never faults (a hint); plain Python: nothing.

``bit_count(x)``: set bits of a non-negative int; compiled, LLVM's ``ctpop`` (one instruction
instead of the ~12 of a bit-twiddling popcount: heuristics count bits in every window
direction at every leaf). Plain Python: ``int.bit_count`` (any size).
"""
from __future__ import annotations

from typing import Any


def borrowed(a: Any) -> Any:
    """``a`` (plain Python); compiled: a view of ``a`` that numba does not reference-count."""
    return a


def prefetch(a: Any, i: int) -> None:
    """Nothing (plain Python); compiled: a read prefetch of ``a[i]`` (``i`` within ``a``)."""
    return None


def bit_count(x: int) -> int:
    """Set bits of a non-negative int (``int.bit_count``; compiled: ``ctpop``)."""
    return int(x).bit_count()


def _register() -> None:
    try:
        from numba import types
        from numba.core import cgutils
        from numba.extending import intrinsic, overload
    except Exception:  # numba missing or broken: the plain path needs none of this
        return

    @intrinsic
    def _borrow(typingctx, arr):
        if not isinstance(arr, types.Array):
            return None

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
            ary.parent = cgutils.get_null_value(ary.parent.type)
            return ary._getvalue()

        return arr(arr), codegen

    @intrinsic
    def _prefetch(typingctx, arr, idx):
        if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir

            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, value=args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            i32 = ir.IntType(32)
            i8p = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # read, high locality (keep in all levels), data cache
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.none(arr, idx), codegen

    @intrinsic
    def _ctpop(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return x(x), codegen

    @overload(bit_count)
    def _bit_count_impl(x):
        if isinstance(x, types.Integer):
            return lambda x: _ctpop(x)
        return None

    @overload(prefetch)
    def _prefetch_impl(a, i):
        if isinstance(a, types.Array):
            return lambda a, i: _prefetch(a, i)
        return lambda a, i: None

    @overload(borrowed)
    def _borrowed_impl(a):
        if isinstance(a, types.Array):
            return lambda a: _borrow(a)
        return lambda a: a


_register()
