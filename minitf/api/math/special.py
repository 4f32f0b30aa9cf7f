"""`tf.math.special`: the Bessel functions again (minitf/ops/math/special.py)."""

from minitf.ops.math.special import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
