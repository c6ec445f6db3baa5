  // out is x summed along dim; keepdim keeps the summed dim as 1, else out has one dim less.
  size_t const r = x.rank();
  if (r < 1 || r > 4) {
    return GraphStatus::ErrorDimensions;
  }
  int const axis = int(dim(0, 0, 0, 0));
  if (axis < -int(r) || axis >= int(r)) {
    return GraphStatus::ErrorDimensions;
  }
  size_t const k = size_t(axis < 0 ? axis + int(r) : axis);
  bool const keep = keepdim(0, 0, 0, 0) != 0.0f;
  size_t const orank = keep ? r : r - 1;
  if (out.rank() != orank) {
    return GraphStatus::ErrorDimensions;
  }
  // x's dims right-aligned in b, h, w, d; the summed one walked in the inner loop.
  size_t const off = 4 - r;
  size_t d[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < r; i++) {
    d[off + i] = x.dim(i);
  }
  size_t const c = d[off + k];
  d[off + k] = 1;
  auto at = [](auto& t, const size_t* i, size_t n) {
    return n == 4 ? t(i[0], i[1], i[2], i[3]) : n == 3 ? t(i[1], i[2], i[3]) : n == 2 ? t(i[2], i[3]) : t(i[3]);
  };
  size_t i[4];
  for (i[0] = 0; i[0] < d[0]; i[0]++)
    for (i[1] = 0; i[1] < d[1]; i[1]++)
      for (i[2] = 0; i[2] < d[2]; i[2]++)
        for (i[3] = 0; i[3] < d[3]; i[3]++) {
          size_t j[4] = {i[0], i[1], i[2], i[3]};
          float sum = 0.0f;
          for (size_t s = 0; s < c; s++) {
            j[off + k] = s;
            sum += at(x, j, r);
          }
          // out's index: x's with the summed dim dropped (right-aligned again) unless kept.
          size_t o[4] = {0, 0, 0, 0};
          for (size_t a = off, p = 4 - orank; a < 4; a++) {
            if (keep || a != off + k) {
              o[p++] = i[a];
            }
          }
          if (orank == 0) {
            out() = sum;
          } else {
            at(out, o, orank) = sum;
          }
        }
  return GraphStatus::Success;
