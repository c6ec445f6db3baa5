  // out is x summed along dim: outer blocks of c * inner elements, each out element one
  // (outer, inner) pair whether keepdim kept the summed dim as 1 or removed it.
  int xd[6] = {x_dim0, x_dim1, x_dim2, x_dim3, x_dim4, x_dim5};
  int k = dim < 0 ? dim + x_rank : dim;
  int inner = 1;
  for (int i = k + 1; i < x_rank; i++) {
    inner *= xd[i];
  }
  int c = xd[k];
  int n = out_dim0 * out_dim1 * out_dim2 * out_dim3 * out_dim4 * out_dim5;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    int in = i % inner;
    int outer = i / inner;
    float sum = 0.0f;
    for (int j = 0; j < c; j++) {
      sum += load_f(x[(outer * c + j) * inner + in]);
    }
    out[i] = to_t(sum, (T_t)0);
  }
