// Device helpers used by the ops' CUDA expressions in fused elementwise
// kernels (tfunc/ops/math.py, cuda_expr).  Generic over the element type.
#ifndef TFUNC_ELEMENTWISE_CUH
#define TFUNC_ELEMENTWISE_CUH

template <typename T> __device__ __forceinline__ T tf_sigmoid(T x) {
    return (T)0.5 * tanh((T)0.5 * x) + (T)0.5;
}

template <typename T> __device__ __forceinline__ T tf_softplus(T x) {
    const T ax = x < (T)0 ? -x : x;
    return (x > (T)0 ? x : (T)0) + log1p(exp(-ax));
}

// Floor division and modulo with Python/TensorFlow signs (the result of
// floormod has the divisor's sign), for integers and floats.
template <typename T> __device__ __forceinline__ T tf_floordiv(T a, T b) {
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
template <> __device__ __forceinline__ float tf_floordiv<float>(float a, float b) { return floorf(a / b); }
template <> __device__ __forceinline__ double tf_floordiv<double>(double a, double b) { return floor(a / b); }

template <typename T> __device__ __forceinline__ T tf_floormod(T a, T b) {
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
template <> __device__ __forceinline__ float tf_floormod<float>(float a, float b) {
    float r = fmodf(a, b);
    if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
    return r;
}
template <> __device__ __forceinline__ double tf_floormod<double>(double a, double b) {
    double r = fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}

// Division rounded toward zero and its remainder (TensorFlow's truncatediv/truncatemod):
// C's / and % for integers, trunc and fmod for floats.
template <typename T> __device__ __forceinline__ T tf_truncatediv(T a, T b) { return a / b; }
template <> __device__ __forceinline__ float tf_truncatediv<float>(float a, float b) { return truncf(a / b); }
template <> __device__ __forceinline__ double tf_truncatediv<double>(double a, double b) { return trunc(a / b); }
template <typename T> __device__ __forceinline__ T tf_truncatemod(T a, T b) { return a % b; }
template <> __device__ __forceinline__ float tf_truncatemod<float>(float a, float b) { return fmodf(a, b); }
template <> __device__ __forceinline__ double tf_truncatemod<double>(double a, double b) { return fmod(a, b); }

// Shifts with the count clamped to [0, bits - 1], as TensorFlow's kernels (a shift by the
// width or more, or by a negative count, is undefined in C).
template <typename T> __device__ __forceinline__ T tf_shift_count(T b) {
    const T top = (T)(sizeof(T) * 8 - 1);
    return b < (T)0 ? (T)0 : (b > top ? top : b);  // (compared in T: a uint64 count stays unsigned)
}
template <typename T> __device__ __forceinline__ T tf_left_shift(T a, T b) { return (T)(a << tf_shift_count(b)); }
template <typename T> __device__ __forceinline__ T tf_right_shift(T a, T b) { return (T)(a >> tf_shift_count(b)); }

// Integer powers by repeated squaring (every integer type: CUDA's pow has no integer
// overloads, and pow(short, short) is ambiguous); floating powers through pow.
template <typename T> __device__ __forceinline__ T tf_pow(T a, T b) {
    T r = 1;
    while (b > 0) { if (b & 1) r *= a; a *= a; b >>= 1; }
    return r;
}
template <> __device__ __forceinline__ float tf_pow<float>(float a, float b) { return powf(a, b); }
template <> __device__ __forceinline__ double tf_pow<double>(double a, double b) { return pow(a, b); }

// Round half to even (NumPy's and TensorFlow's rule) for floats; integers are already round.
template <typename T> __device__ __forceinline__ T tf_round(T a) { return a; }
template <> __device__ __forceinline__ float tf_round<float>(float a) { return rintf(a); }
template <> __device__ __forceinline__ double tf_round<double>(double a) { return rint(a); }

#endif  // TFUNC_ELEMENTWISE_CUH
