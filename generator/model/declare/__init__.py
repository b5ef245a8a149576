"""Job declarations from every source: ``x-jobgen`` or a side file, and the vendor
dialects a published spec already holds (imported into the same declaration mapping)."""
