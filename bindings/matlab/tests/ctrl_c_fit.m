% A fit of minutes (P = 32, 10,000 sweeps per EMP) for tests/bindings/ctrl_c.sh,
% which interrupts it: the MEX gateway must turn Ctrl-C into sompca:canceled.
X = randn(32, 32, 300);
try
  sompca_fit(X, 32, 'MaxIter', 10000, 'Threads', 1, 'Verbose', true);
  disp('not cancelled');
catch e
  disp(['caught ' e.identifier]);
end
