"""What outlives the Python process: SavedModel directories, checkpoints, and traced graphs written as JSON."""
