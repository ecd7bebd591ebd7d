using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>
    /// A small runner (no NUnit needed): each suite adds named async tests; the run prints one line
    /// per test and closes with "N passed, N failed". Exit status 1 on any failure.
    /// </summary>
    public sealed class TestRunner
    {
        private readonly List<KeyValuePair<string, Func<Task>>> tests = new List<KeyValuePair<string, Func<Task>>>();

        public void Add(string name, Func<Task> test) { tests.Add(new KeyValuePair<string, Func<Task>>(name, test)); }

        public void Add(string name, Action test)
        {
            Add(name, () => { test(); return Task.FromResult(0); });
        }

        public static int Main(string[] args)
        {
            var runner = new TestRunner();
            JsonTests.Register(runner);
            VectorTests.Register(runner);
            PinTests.Register(runner);
            ErrorTests.Register(runner);
            RequestTests.Register(runner);
            MfaTests.Register(runner);
            HttpTransportTests.Register(runner);
            ApiSurfaceTests.Register(runner);
            WebhookTests.Register(runner);
            LiveTests.Register(runner);
            LivePlayerRoutesTests.Register(runner);
            LivePlatformTests.Register(runner);
            string filter = args.Length > 0 ? args[0] : null;
            return runner.Run(filter);
        }

        private int Run(string filter)
        {
            int passed = 0, failed = 0, skipped = 0;
            foreach (var test in tests)
            {
                if (filter != null && test.Key.IndexOf(filter, StringComparison.OrdinalIgnoreCase) < 0) continue;
                var watch = Stopwatch.StartNew();
                try
                {
                    test.Value().GetAwaiter().GetResult();
                    passed++;
                    Console.WriteLine("PASS " + test.Key + " (" + watch.ElapsedMilliseconds + " ms)");
                }
                catch (SkipException skip)
                {
                    skipped++;
                    Console.WriteLine("SKIP " + test.Key + ": " + skip.Message);
                }
                catch (Exception e)
                {
                    failed++;
                    Console.WriteLine("FAIL " + test.Key + ": " + e);
                }
            }
            if (skipped > 0) Console.WriteLine(skipped + " skipped");
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 ? 0 : 1;
        }

        /// <summary>The repository's sdk/ directory (the tests read sdk/vectors and docs/errors.md).</summary>
        public static string SdkDir
        {
            get
            {
                var fromEnv = Environment.GetEnvironmentVariable("DAUTH_SDK_DIR");
                if (!string.IsNullOrEmpty(fromEnv)) return fromEnv;
                var dir = AppDomain.CurrentDomain.BaseDirectory;
                while (dir != null && !Directory.Exists(Path.Combine(dir, "vectors"))) dir = Path.GetDirectoryName(dir.TrimEnd('/'));
                if (dir == null) throw new InvalidOperationException("sdk/vectors not found above " + AppDomain.CurrentDomain.BaseDirectory);
                return dir;
            }
        }
    }

    public sealed class SkipException : Exception
    {
        public SkipException(string message) : base(message) { }
    }

    public static class Assert
    {
        public static void Equal<T>(T expected, T actual, string what = "")
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
                throw new Exception("expected " + Show(expected) + ", got " + Show(actual) + (what.Length > 0 ? " (" + what + ")" : ""));
        }

        public static void True(bool condition, string what)
        {
            if (!condition) throw new Exception("expected: " + what);
        }

        public static TException Throws<TException>(Action action, string what = "") where TException : Exception
        {
            try
            {
                action();
            }
            catch (TException e)
            {
                return e;
            }
            catch (Exception e)
            {
                throw new Exception("expected " + typeof(TException).Name + ", got " + e.GetType().Name + ": " + e.Message + " " + what);
            }
            throw new Exception("expected " + typeof(TException).Name + ", nothing thrown " + what);
        }

        public static async Task<TException> ThrowsAsync<TException>(Func<Task> action, string what = "") where TException : Exception
        {
            try
            {
                await action();
            }
            catch (TException e)
            {
                return e;
            }
            catch (Exception e)
            {
                throw new Exception("expected " + typeof(TException).Name + ", got " + e.GetType().Name + ": " + e.Message + " " + what);
            }
            throw new Exception("expected " + typeof(TException).Name + ", nothing thrown " + what);
        }

        private static string Show(object value) { return value == null ? "null" : "'" + value + "'"; }
    }
}
