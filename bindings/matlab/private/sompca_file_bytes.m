function bytes = sompca_file_bytes(model, caller)
% The library's model file that a model struct carries (the library checks
% its checksum when it reads it).
  if ~isstruct(model) || ~isscalar(model) || ~isfield(model, 'File') || ~isa(model.File, 'uint8')
    error('sompca:badModel', '%s: model must be a struct made by sompca_fit or sompca_load', caller);
  end
  bytes = model.File;
end
