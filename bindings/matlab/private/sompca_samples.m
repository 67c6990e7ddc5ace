function [Xc, shape, M] = sompca_samples(X, shape, samples_first, caller)
% The samples of X in the library's layout: an array whose column-major
% memory is the C-order M x I_1 x ... x I_N array, in X's own class when
% the library reads it (double, single, uint8; logical as uint8), else
% converted to double. shape = [] takes the sample shape from X, else X
% must hold samples of that shape.
  if ~(islogical(samples_first) || isnumeric(samples_first)) || ~isscalar(samples_first)
    error('sompca:badInput', '%s: SamplesFirst must be true or false', caller);
  end
  if ~(isnumeric(X) || islogical(X)) || ~isreal(X) || issparse(X)
    error('sompca:badInput', '%s: X must be a real, full numeric or logical array, got %s', caller, sompca_show(X));
  end
  if ~(isa(X, 'double') || isa(X, 'single') || isa(X, 'uint8') || islogical(X))
    X = double(X);
  end
  sz = size(X);
  if isempty(shape)
    if samples_first
      M = sz(1);
      shape = sz(2:end);
    else
      M = sz(end);
      shape = sz(1:end - 1);
    end
  else
    % MATLAB drops trailing singleton dimensions: pad them back.
    N = numel(shape);
    sz = [sz, ones(1, N + 1 - numel(sz))];
    if samples_first
      ok = isequal(sz(2:N + 1), shape) && all(sz(N + 2:end) == 1);
      M = sz(1);
      want = sprintf('M x %s', strjoin(arrayfun(@num2str, shape, 'UniformOutput', false), ' x '));
    else
      ok = isequal(sz(1:N), shape) && all(sz(N + 2:end) == 1);
      M = sz(N + 1);
      want = sprintf('%s x M', strjoin(arrayfun(@num2str, shape, 'UniformOutput', false), ' x '));
    end
    if ~ok
      error('sompca:badInput', '%s: X is %s: want %s (the model''s sample shape%s)', caller, ...
            strjoin(arrayfun(@num2str, size(X), 'UniformOutput', false), ' x '), want, ...
            ternary(samples_first, ', samples first', ''));
    end
  end
  N = numel(shape);
  if samples_first
    Xc = permute(X, [N + 1:-1:2, 1]);
  elseif N > 1
    Xc = permute(X, [N:-1:1, N + 1]);
  else
    Xc = X;   % I x M: already the C-order M x I array, passed without a copy
  end
end

function s = ternary(c, a, b)
  if c
    s = a;
  else
    s = b;
  end
end
