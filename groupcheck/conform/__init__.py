"""Conformance: judge real implementations with the model's properties (see PROTOCOL.md).

Roles × targets: ``roles/`` has one package per role (scenarios, claims, targets, role;
``roles.named`` is the registry the CLI dispatches through), ``targets/`` one package per
family of implementations (the only place with processes, sockets and brokers).
``driver.py`` explores the assignor-shaped roles; ``campaign.py`` is the one loop,
shrinker and verdict writer of the scenario-list roles (docs/tools/conform.md, "Roles and
targets")."""
