"""Named slots of a hot kernel's flat arrays: one :class:`Layout` per kernel family owns the
names, their indices and the header's size, so that no slot index is written twice.

A hot module unpacks a layout's :attr:`~Layout.slots` into module constants (numba reads module
globals as compile-time integers), e.g.::

    TREE = Layout("I_", "USED RNG CAP", size=4)
    I_USED, I_RNG, I_CAP = TREE.slots

and ``tests/test_kernel_layouts.py`` checks that each such constant equals its layout's index,
that a layout's slots are distinct and within its size, and that no prefixed name is owned by
two layouts (so ``SIZE`` cannot mean three things in three modules).
"""
from __future__ import annotations


class Layout:
    """Slots ``prefix + name`` numbered from ``start`` in the order given (``names``: one string,
    names separated by spaces); ``size``: the slots the header reserves (default: just enough;
    a larger size keeps spare slots, so that adding a name does not move what follows)."""

    def __init__(self, prefix: str, names: str, size: int | None = None, start: int = 0) -> None:
        self.prefix = prefix  # every constant of this layout starts with it (unique per family)
        self.names = tuple(names.split())  # the slot names, without the prefix, in index order
        self.start = start  # the first slot's index
        self.size = start + len(self.names) if size is None else size  # slots reserved
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"layout {prefix}: a name appears twice")
        if self.size < start + len(self.names):
            raise ValueError(f"layout {prefix}: {len(self.names)} names do not fit {size} slots")

    @property
    def slots(self) -> tuple[int, ...]:
        """The indices, in the order of :attr:`names` (unpack them into module constants)."""
        return tuple(range(self.start, self.start + len(self.names)))

    def constants(self) -> dict[str, int]:
        """``prefix + name -> index`` for every slot."""
        return {self.prefix + n: i for n, i in zip(self.names, self.slots)}

    def index(self, name: str) -> int:
        """The index of slot ``name`` (without the prefix); KeyError naming the layout."""
        try:
            return self.start + self.names.index(name)
        except ValueError:
            raise KeyError(f"layout {self.prefix}: no slot {name!r}") from None

    def header(self, fill: int | float = 0, **values: int | float) -> list:
        """A header of :attr:`size` slots holding ``fill``, with ``values`` (by name, without the
        prefix) at their slots: the one place a family's header is initialised by name."""
        head = [fill] * self.size
        for name, v in values.items():
            head[self.index(name.upper())] = v
        return head
