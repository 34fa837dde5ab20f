"""The game itself: tiles, wall, rules, hand analysis, scoring and the engine.

Pure and synchronous: nothing here awaits, touches a file or a process, or imports from the layers above.
"""
