function model = sompca_load(file)
%SOMPCA_LOAD  Load a sompca model file.
%   MODEL = SOMPCA_LOAD(FILE) reads a model file written by SOMPCA_SAVE,
%   Python (model.save), R (sompca_save), C (sompca_model_save) or Go, and
%   returns the struct SOMPCA_FIT returns. A corrupt file is an error
%   (sompca:badFile; the library checks the file's checksum), a missing or
%   unreadable one sompca:io.
%
%   See also SOMPCA_SAVE, SOMPCA_FIT.
  if nargin ~= 1 || ~ischar(file) || isempty(file)
    error('sompca:badInput', 'sompca_load: usage: model = sompca_load(file), file a character vector');
  end
  model = sompca_model(sompca_mex('load', file));
end
