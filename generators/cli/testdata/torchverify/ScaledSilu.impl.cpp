  if (!out.set_dims(x)) {
    return GraphStatus::ErrorDimensions;
  }
  float const s = scale(0, 0, 0, 0);
  size_t const r = x.rank();
  if (r < 1 || r > 4) {
    return GraphStatus::ErrorDimensions;
  }
  // The dims right-aligned in b, h, w, d; each element addressed at x's own rank.
  size_t d[4] = {1, 1, 1, 1};
  for (size_t k = 0; k < r; k++) {
    d[4 - r + k] = x.dim(k);
  }
  auto at = [r](auto& t, size_t b, size_t h, size_t w, size_t c) {
    return r == 4 ? t(b, h, w, c) : r == 3 ? t(h, w, c) : r == 2 ? t(w, c) : t(c);
  };
  for (size_t b = 0; b < d[0]; b++)
    for (size_t h = 0; h < d[1]; h++)
      for (size_t w = 0; w < d[2]; w++)
        for (size_t c = 0; c < d[3]; c++) {
          float const v = at(x, b, h, w, c);
          at(out, b, h, w, c) = v / (1.0f + std::exp(-v)) * s;
        }
  return GraphStatus::Success;
