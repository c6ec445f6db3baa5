  if (x.rank() != 1) {
    return GraphStatus::ErrorDimensions;
  }
  size_t const n = x.dim(0);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (float(x(i)) > 0.0f) {
      k++;
    }
  }
  size_t const dims[1] = {k};
  if (!out.set_dims(dims)) {
    return GraphStatus::ErrorDimensions;
  }
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (float(x(i)) > 0.0f) {
      out(k++) = float(i);
    }
  }
  return GraphStatus::Success;
