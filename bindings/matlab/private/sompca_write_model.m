function file = sompca_write_model(model, caller)
% Writes the library's model file that a model struct carries to a
% temporary file for sompca_mex (which checks its checksum on loading).
  if ~isstruct(model) || ~isscalar(model) || ~isfield(model, 'File') || ~isa(model.File, 'uint8')
    error('sompca:badModel', '%s: model must be a struct made by sompca_fit or sompca_load', caller);
  end
  file = [tempname() '.h5'];
  fid = fopen(file, 'w');
  if fid < 0
    error('sompca:io', '%s: cannot write the temporary file %s', caller, file);
  end
  count = fwrite(fid, model.File, 'uint8');
  if fclose(fid) ~= 0 || count ~= numel(model.File)
    sompca_delete(file);
    error('sompca:io', '%s: cannot write the temporary file %s', caller, file);
  end
end
