"""The fast self-play trainer, ``balance-control train --backend selfplay`` (docs/training.md, "The selfplay backend"):
``trainer.py`` (the training core's backend ``SelfPlayBackend``: PPO, torch) and ``games.py`` (the batched games in
worker processes over shared memory, torch-free, so a worker process never imports torch)."""
