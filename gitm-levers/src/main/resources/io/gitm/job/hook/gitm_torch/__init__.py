"""gitm's hook inside a PyTorch job: step metric, framework facts and framework levers (see boot.py)."""

VERSION = 1
