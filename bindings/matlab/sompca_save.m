function sompca_save(model, file)
%SOMPCA_SAVE  Save a sompca model to the library's HDF5 model file.
%   SOMPCA_SAVE(MODEL, FILE) writes MODEL (from SOMPCA_FIT or SOMPCA_LOAD)
%   to FILE, replacing it; the file is written to a temporary file and
%   renamed into place. Python (sompca.load), R (sompca_load), C
%   (sompca_model_load) and Go read it, and give the same features.
%
%   See also SOMPCA_LOAD, SOMPCA_FIT.
  if nargin ~= 2 || ~ischar(file) || isempty(file)
    error('sompca:badInput', 'sompca_save: usage: sompca_save(model, file), file a character vector');
  end
  sompca_mex('save', sompca_file_bytes(model, 'sompca_save'), file);
end
