// Package qnnxml reads and writes Qualcomm QNN op-package XML configs (the
// input of qnn-op-package-generator). Real configs load unchanged; element
// order, required attributes and the schema's enumerations are enforced
// with positioned diagnostics before anything is built.
//
// The QNN XML format, the htp target's own input format (`load` dispatches
// `.xml` files to it; it lives in the target's folder, beside `htpopt`, whose
// sections it builds and writes): etree for the tree, plus an `encoding/xml`
// pass recording every start element's line and column and each attribute's,
// scanned from the start tag's raw bytes (etree keeps none); syntax errors get
// a column; content models (order, cardinality, enumerations, attributes)
// written from the documented facts; building the IR with the QNN translator's
// classification rules; the canonical writer. DOCTYPE/entities are refused.
package qnnxml
