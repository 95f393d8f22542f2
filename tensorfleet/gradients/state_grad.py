"""The state ops are not differentiable: gradients flow to a variable's read
snapshot, never through the ops that store or update it."""

from __future__ import annotations

from tensorfleet.gradients.registry import no_gradient

for _op_type in ("VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterAdd", "ScatterSub",
                 "ScatterUpdate", "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
                 "IsVariableInitialized", "CountUpTo"):
    no_gradient(_op_type)

__all__: list = []
