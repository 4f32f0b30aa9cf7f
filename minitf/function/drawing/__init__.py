"""Drawing a graph as inline SVG (minitf only): the page (svg.py), the layout (layout.py), the nodes (nodes.py)."""
