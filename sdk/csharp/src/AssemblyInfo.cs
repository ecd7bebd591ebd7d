using System.Runtime.CompilerServices;

[assembly: InternalsVisibleTo("Dauth.Tests")]
