"""Inspection: text and pictures of graphs, read from frontend graphs, compiled functions and
IR modules — `printing.py` (debugprint, pp), `dot.py` (pydotprint, the DOT graph).

A level between the frontend and the API: `irc.printing` re-exports it and `irc-opt
--view-graph` draws with it. Nothing is imported here, so each user pays only for what it reads
(networkx only for pictures)."""
