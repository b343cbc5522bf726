"""`ctx ui`: a local, read-mostly web viewer over ctx's memory and cue's digests (SPEC §6.1).

app.py (routes) · security.py (Host, token, CSRF) · data.py (bounded reads) · graph.py (SVG
layout) · cue_client.py (the `cue` CLI, JSON) · thumbs.py (keyframe thumbnails) ·
server.py (bind 127.0.0.1, uvicorn). Templates and static files live beside them and ship
in the wheel with the package.
"""
