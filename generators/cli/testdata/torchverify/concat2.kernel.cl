  // out is a and b joined along dim: outer blocks of (ca + cb) * inner elements.
  int ad[6] = {a_dim0, a_dim1, a_dim2, a_dim3, a_dim4, a_dim5};
  int bd[6] = {b_dim0, b_dim1, b_dim2, b_dim3, b_dim4, b_dim5};
  int k = dim < 0 ? dim + a_rank : dim;
  int inner = 1;
  for (int i = k + 1; i < a_rank; i++) {
    inner *= ad[i];
  }
  int ca = ad[k], cb = bd[k];
  int n = out_dim0 * out_dim1 * out_dim2 * out_dim3 * out_dim4 * out_dim5;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    int in = i % inner;
    int c = (i / inner) % (ca + cb);
    int outer = i / inner / (ca + cb);
    out[i] = c < ca ? a[(outer * ca + c) * inner + in] : b[(outer * cb + c - ca) * inner + in];
  }
