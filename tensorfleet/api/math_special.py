"""``tf.math.special``: Bessel functions, Dawson's integral, the exponential integral,
Fresnel integrals and Spence's function."""

from tensorfleet.ops.math_ops_special import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e)
from tensorfleet.ops.special_functions import (bessel_j0, bessel_j1, bessel_k0, bessel_k0e,
    bessel_k1, bessel_k1e, bessel_y0, bessel_y1, dawsn, expint, fresnel_cos, fresnel_sin,
    spence)

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
           "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1",
           "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]
