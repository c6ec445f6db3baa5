  int n = x_dim0 * x_dim1 * x_dim2 * x_dim3 * x_dim4 * x_dim5;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    float v = load_f(x[i]);
    out[i] = to_t(v / (1.0f + exp(-v)) * scale, (T_t)0);
  }
