"""Traits: what an op is, declared on the op, read by transforms instead of type-name lists.

A layout or fusing transform asks ``node.op.has(Trait.ELEMENTWISE)``; an op from any plugin
that declares the trait takes part, with no change to the transform.
"""

from __future__ import annotations

import enum


class Trait(enum.Enum):
    """A property of an op that transforms may rely on.

    ELEMENTWISE: each output element depends only on the input elements at the same position;
      data inputs broadcast NumPy-style against each other (Add, Multiply, Select, ...).
    LAYOUT_AGNOSTIC: permuting the axes of input 0 permutes output 0 the same way; any other
      input is a parameter whose meaning does not depend on the layout (ReLU, Clamp, Swish's
      beta, Convert). Transposes sink through such ops by input 0 alone.
    COMMUTATIVE: inputs 0 and 1 can be swapped without changing the result.
    REDUCTION: reduces input 0 over the axes given by input 1; a ``keep_dims`` attribute says
      whether reduced axes stay as size 1.
    SHAPE_ONLY: outputs are computed from input *shapes*, not values (ShapeOf); values derived
      from them are kept out of constant folding unless a static shape is asked for.
    SIDE_EFFECTS: the op must run even when its outputs look unused or constant (state,
      randomness); it is never folded, never removed as dead.
    """

    ELEMENTWISE = "elementwise"
    LAYOUT_AGNOSTIC = "layout_agnostic"
    COMMUTATIVE = "commutative"
    REDUCTION = "reduction"
    SHAPE_ONLY = "shape_only"
    SIDE_EFFECTS = "side_effects"
