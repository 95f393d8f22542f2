"""``tf.dtypes.experimental``: the 8-, 4- and 2-bit float and integer types."""

from tensorfleet.dtypes import (float4_e2m1fn, float8_e4m3b11fnuz, float8_e4m3fn,
    float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, int2, int4, uint2, uint4)

__all__ = ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]
