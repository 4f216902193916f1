"""Role consumer-client: real consumers in a group (classic and KIP-848), judged by the models' properties."""
