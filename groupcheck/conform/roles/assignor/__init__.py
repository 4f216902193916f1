"""Role assignor: a consumer group's partition assignor, driven through the consumer model."""
