"""Terraform provider plugins: executables speaking tfplugin5/6 over gRPC, driven as providers.

The provider registry (:mod:`engine.provider.registry`) starts a
:class:`~engine.plugin.client.PluginProvider` for each provider whose plugin ``init`` installed
(:mod:`engine.install`); the client itself (grpcio, protobuf) is imported only then, so a run with
built-in providers alone does not pay for it.
"""
