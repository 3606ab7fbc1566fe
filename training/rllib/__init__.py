"""Multi-agent self-play training on Ray RLlib (``backend = "rllib"``; docs/training.md, "Training on Ray RLlib").

* :mod:`.env`: ``balance_control_v0`` (the PettingZoo AEC env) as an RLlib ``MultiAgentEnv``; the learner's seats
  are RLlib agents, the other seats are played inside the env by bots drawn from the opponent pool;
* :mod:`.module`: the masked MLP ``RLModule`` (illegal actions get the lowest logit);
* :mod:`.algo`: the PPO ``AlgorithmConfig`` built from a :class:`training.config.TrainConfig`;
* :mod:`.trainer`: the run loop with pool snapshots, evaluations, checkpoints and ``--resume``;
* :mod:`.export`: a trained ``RLModule`` to the torch-free ``.npz`` + manifest format of ``policies.neural``.

Ray is imported only inside this package (``pip install -e '.[rllib]'``): ``import training`` works without it.
"""
