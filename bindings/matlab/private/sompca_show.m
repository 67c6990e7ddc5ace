function s = sompca_show(v)
% A short description of a value for error messages.
  if ischar(v)
    s = ['''' v ''''];
  elseif (isnumeric(v) || islogical(v)) && isscalar(v)
    s = num2str(v);
  else
    s = sprintf('a %s of size %s', class(v), mat2str(size(v)));
  end
end
