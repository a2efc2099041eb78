"""Retrieval: section trees, chunking, embeddings, FTS5 + vector indexes, fusion, packing."""
