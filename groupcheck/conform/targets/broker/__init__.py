"""Real brokers over TCP: any Kafka address, and Tansu started by groupcheck."""
