"""TensorFlow-exact numerics (opt-in): float kernels that give the bits TensorFlow 2.21's CPU build gives on
x86-64 with AVX, switched on with `minitf.api.experimental.numerics("tensorflow")`.

By default minitf computes with NumPy's kernels (`np.exp`, `np.tanh`, `np.sum`): results agree with
TensorFlow's to float precision, a few units in the last place, as TensorFlow's own results differ between
processors. This package reproduces one platform's last digits instead:

* `exp_log.py`: float32 exp, log and the logistic function as Eigen's packet approximations (8 values at a
  time, no fused multiply-add, denormals flushed) and the C library for a tensor's tail;
* `tanh.py`: Eigen's rational tanh in float32, float64 and float16;
* `summation.py`: sums and means in Eigen's order (packets, interleaved accumulators, halves of long rows);
* `reciprocal.py`: the processor's approximate reciprocal and one Newton step (softmax from 8 rows on);
* `kernels.py`: the table of ops these kernels replace.

Why someone would want it: to see a lesson print exactly TensorFlow's digits on this kind of machine, or to
study where the last bits of a float computation come from (summation order, approximations, flushing).
Why it is not the default: each exact kernel is many NumPy calls where NumPy's is one (several times slower
on small tensors), and the bits are a property of one processor family, not of TensorFlow: on an ARM
laptop, with FMA, or on AMD's `rcpps`, TensorFlow itself computes other bits.
"""
