-- What the deployment's last call of the model that the provider took was counted at its start, per limit.
SELECT kind, counted
  FROM shared_token_counted(:provider, :model)
