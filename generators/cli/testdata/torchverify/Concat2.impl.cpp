  size_t const r = a.rank();
  if (r < 1 || r > 4 || b.rank() != r) {
    return GraphStatus::ErrorDimensions;
  }
  int const axis = int(dim(0, 0, 0, 0));
  if (axis < -int(r) || axis >= int(r)) {
    return GraphStatus::ErrorDimensions;
  }
  size_t const k = size_t(axis < 0 ? axis + int(r) : axis);
  size_t od[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < r; i++) {
    od[i] = a.dim(i) + (i == k ? b.dim(i) : 0);
  }
  if (!out.set_dims(od)) {
    return GraphStatus::ErrorDimensions;
  }
  // Dims right-aligned in b, h, w, d; each element addressed at the tensors' own rank.
  size_t const off = 4 - r;
  size_t d[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < r; i++) {
    d[off + i] = od[i];
  }
  size_t const ca = a.dim(k);
  auto at = [r](auto& t, const size_t* i) {
    return r == 4 ? t(i[0], i[1], i[2], i[3]) : r == 3 ? t(i[1], i[2], i[3]) : r == 2 ? t(i[2], i[3]) : t(i[3]);
  };
  size_t i[4];
  for (i[0] = 0; i[0] < d[0]; i[0]++)
    for (i[1] = 0; i[1] < d[1]; i[1]++)
      for (i[2] = 0; i[2] < d[2]; i[2]++)
        for (i[3] = 0; i[3] < d[3]; i[3]++) {
          size_t j[4] = {i[0], i[1], i[2], i[3]};
          if (i[off + k] < ca) {
            at(out, i) = float(at(a, j));
          } else {
            j[off + k] -= ca;
            at(out, i) = float(at(b, j));
          }
        }
  return GraphStatus::Success;
