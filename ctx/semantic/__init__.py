"""Local semantic search: multilingual-e5-small (or MiniLM), a persistent chunk index, hybrid ranking."""
