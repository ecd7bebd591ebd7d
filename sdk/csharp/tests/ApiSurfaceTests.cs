using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Mono.Cecil;

namespace Dauth.Tests
{
    /// <summary>
    /// The library is built against Mono's full framework, so this checks what Unity needs: every type
    /// Dauth.dll refers to is one of .NET Standard 2.1's (the types Mono's netstandard 2.1 facade
    /// forwards). Member-level use was checked by hand (README); the facade has no member lists.
    /// </summary>
    public static class ApiSurfaceTests
    {
        private const string Facade = "/usr/lib/mono/4.5/Facades/netstandard.dll";

        public static void Register(TestRunner t)
        {
            t.Add("api: Dauth.dll uses only types of .NET Standard 2.1", () =>
            {
                var facade = ModuleDefinition.ReadModule(Facade);
                Assert.Equal("2.1.0.0", facade.Assembly.Name.Version.ToString(), "the netstandard facade's version");
                var standard = new HashSet<string>(facade.ExportedTypes.Select(e => e.FullName.Replace('/', '+')));
                var library = ModuleDefinition.ReadModule(typeof(DauthClient).Assembly.Location);
                var outside = new List<string>();
                foreach (var reference in library.GetTypeReferences())
                {
                    var name = reference.FullName.Replace('/', '+');
                    if (!standard.Contains(name)) outside.Add(name + " (" + reference.Scope.Name + ")");
                }
                Assert.True(outside.Count == 0, "types outside .NET Standard 2.1: " + string.Join(", ", outside));
                Assert.True(library.GetTypeReferences().Count() > 40, "the check saw the references");
            });
        }
    }
}
