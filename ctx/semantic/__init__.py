"""Local semantic search: MiniLM on onnxruntime, a persistent chunk index, hybrid ranking."""
