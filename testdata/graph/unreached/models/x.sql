SELECT a FROM ref('y')
