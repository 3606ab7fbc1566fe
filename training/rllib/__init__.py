"""PPO training on Ray RLlib (``backend = "rllib"``; docs/training.md, "Training on Ray RLlib").

* :mod:`.env`: the env of each env runner, one batched env of ``n_envs`` games (``bc_env.vector.LearnerVectorEnv``,
  RLlib's ``vector_entry_point`` mode): one learner seat per game, the other seats played inside the env by bots
  drawn from the opponent pool;
* :mod:`.module`: the masked MLP ``RLModule`` (illegal actions get the lowest logit);
* :mod:`.algo`: the PPO ``AlgorithmConfig`` built from a :class:`training.config.TrainConfig`;
* :mod:`.trainer`: the backend of the training core (pool snapshots, evaluations, checkpoints, ``--resume``);
* :mod:`.export`: a trained ``RLModule`` to the torch-free ``.npz`` + manifest format of ``policies.neural``.

Ray is imported only inside this package (``pip install -e '.[rllib]'``): ``import training`` works without it.
"""
