function values = sompca_options(names, values, args, caller)
% Name-Value pairs (case-insensitive names) over defaults.
  if mod(numel(args), 2) ~= 0
    error('sompca:badInput', '%s: options come in Name, Value pairs', caller);
  end
  for k = 1:2:numel(args)
    name = args{k};
    if ~ischar(name)
      error('sompca:badInput', '%s: option name %d is not a character vector', caller, (k + 1) / 2);
    end
    i = find(strcmpi(name, names), 1);
    if isempty(i)
      error('sompca:badInput', '%s: unknown option ''%s''', caller, name);
    end
    values{i} = args{k + 1};
  end
end
