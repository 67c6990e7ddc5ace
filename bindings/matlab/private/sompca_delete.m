function sompca_delete(file)
% Removes a temporary file if it exists.
  if exist(file, 'file')
    delete(file);
  end
end
